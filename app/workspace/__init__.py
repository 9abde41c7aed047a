"""Confinement: the root handle, safe open/list/walk, secrets and ignore rules."""

from app.workspace.content import Sniffed, human_size
from app.workspace.values import Entry, HiddenCounts, Listing, SkippedFolder, TextFile
from app.workspace.workspace import MissingPathError, UnreadablePathError, Workspace, check_folder

__all__ = ["Entry", "HiddenCounts", "Listing", "MissingPathError", "SkippedFolder", "Sniffed", "TextFile",
           "UnreadablePathError", "Workspace", "check_folder", "human_size"]
