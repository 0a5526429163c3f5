"""Headless reports: JSON for scripts, GitHub markdown for CI and review."""
