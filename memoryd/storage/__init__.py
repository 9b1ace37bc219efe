"""SQLite storage (peewee): schema, migrations, FTS5 mirrors and one store module per table family."""
