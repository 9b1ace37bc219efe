"""Helpers shared by the test suites: starting real service processes and waiting for their health."""
