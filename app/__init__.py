"""Burrow: an offline assistant for questions about a private codebase."""

__version__ = "0.1.0"
