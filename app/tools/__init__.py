"""Tool definitions: typed functions with pydantic argument models; schemas are derived from them.

Import from the modules themselves (`app.tools.registry`, `app.tools.base`); this package file is
empty on purpose, so importing one tool module never drags in the registry and pydantic.
"""
