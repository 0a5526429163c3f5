"""The data model: Profile, the Arrow schemas, the canonical metric catalog, units."""
