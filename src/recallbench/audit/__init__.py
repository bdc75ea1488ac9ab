"""Suite audits: do agents without memory fail a suite? (``recallbench audit``)."""
