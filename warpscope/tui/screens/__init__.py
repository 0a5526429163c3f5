"""The screens of the warpscope UI, one per module."""
