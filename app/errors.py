"""Error types. Our own mistakes raise these; the model's mistakes become tool results."""


class BurrowError(Exception):
    """Base of every error Burrow raises on purpose; its message is fit for a user."""


class WorkspaceError(BurrowError):
    """The workspace folder cannot be used (missing, not a directory, unreadable)."""


class PathRefusedError(BurrowError):
    """A path was refused by the workspace rules; the message names only workspace-relative paths."""


class ToolExecutionError(BurrowError):
    """A tool could not do what was asked (missing file, binary file, bad regex, ...)."""


class ModelLoadError(BurrowError):
    """A model file could not be loaded (missing, not GGUF, truncated, unknown architecture)."""


class SettingsError(BurrowError):
    """A settings value was refused."""


class NetworkBlockedError(BurrowError, PermissionError):
    """Something tried to reach the network; Burrow never does."""


class ChatTemplateError(BurrowError):
    """A model's chat template does not compile or refuses a conversation."""


class ModelInstallError(BurrowError):
    """A catalog model could not be downloaded, assembled or verified; nothing was installed."""
