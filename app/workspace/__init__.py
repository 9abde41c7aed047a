"""Confinement: the root handle, safe open/list/walk, secrets and ignore rules."""

from app.workspace.content import Sniffed, human_size
from app.workspace.values import Entry, HiddenCounts, Listing, TextFile
from app.workspace.workspace import MissingPathError, Workspace, check_folder

__all__ = ["Entry", "HiddenCounts", "Listing", "MissingPathError", "Sniffed", "TextFile", "Workspace", "check_folder",
           "human_size"]
