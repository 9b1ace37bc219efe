"""The plugin-side process: loads one plugin, serves PluginRuntimeService, and gives commands a bridge Context."""
