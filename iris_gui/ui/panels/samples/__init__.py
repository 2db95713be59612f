"""Made-up records for the views' previews and tests; every picture of them says SAMPLE DATA."""
