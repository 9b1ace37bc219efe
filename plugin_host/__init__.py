"""plugin_host: runs third-party plugins in their own processes and serves the composed agent surface."""
