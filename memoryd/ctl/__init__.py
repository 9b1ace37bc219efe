"""memoryctl: the command-line client for memoryd's admin and console operations."""
