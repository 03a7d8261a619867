"""Game records in and out: mjai and tenhou.net/6 importers, exporters, format detection."""
