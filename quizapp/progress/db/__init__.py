"""The database: connections and write transactions (``connection``), the schema (``migrations``),
JSON columns (``stored_json``) and whose turn it is to write (``writer_turn``)."""
