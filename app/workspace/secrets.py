"""Names that look like credentials. Matched case-insensitively on the workspace-relative path.

A false positive hides one harmless file (the user can turn the policy off in settings); a false
negative can hand a key to a model whose transcript the user may share. So the list leans wide.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

# Matched against the file's own name.
SECRET_NAME_PATTERNS: tuple[str, ...] = (
    ".env", ".env.*", "*.env", ".envrc",
    "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
    "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx", "*.ppk", "*.gpg", "*.asc",
    ".netrc", "_netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials", ".htpasswd", ".dockercfg",
    "credentials", "credentials.json", "credentials.yml", "credentials.yaml", "credentials.xml",
    "credentials.ini", "credentials.toml", "credentials.csv", "client_secret*.json", "service-account*.json",
    "secrets.json", "secrets.yml", "secrets.yaml", "secrets.toml", "*.secret", "*.secrets",
    "terraform.tfvars", "*.tfstate", "*.tfstate.backup", "known_hosts", "authorized_keys",
)
# Matched against the whole relative path (any depth).
SECRET_PATH_PATTERNS: tuple[str, ...] = (
    ".git/config", "*/.git/config", ".ssh/*", "*/.ssh/*", ".aws/*", "*/.aws/*", ".gnupg/*",
    "*/.gnupg/*", ".docker/config.json", "*/.docker/config.json", ".kube/config", "*/.kube/config",
)
# Directories whose whole content is credentials: hidden from listings, never descended.
SECRET_DIR_NAMES: frozenset[str] = frozenset({".ssh", ".gnupg", ".aws", ".password-store"})
_PUBLIC_KEY_SUFFIX = ".pub"


def _one_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """fnmatchcase over many patterns as one alternation: one regex call per path instead of ~60."""
    return re.compile("|".join(fnmatch.translate(p) for p in patterns))


_NAME_REGEX = _one_regex(SECRET_NAME_PATTERNS)
_PATH_REGEX = _one_regex(SECRET_PATH_PATTERNS)


@dataclass(frozen=True)
class SecretsRule:
    """Whether a relative path looks like a credential; `enabled` comes from settings.secrets_policy."""

    enabled: bool = True

    def matches_dir(self, rel: str) -> bool:
        return self.enabled and rel.lower().rsplit("/", 1)[-1] in SECRET_DIR_NAMES

    def matches(self, rel: str) -> bool:
        """For files (or any path the model asks to read)."""
        if not self.enabled or not rel or rel == ".":
            return False
        lowered = rel.lower()
        name = lowered.rsplit("/", 1)[-1]
        if name.endswith(_PUBLIC_KEY_SUFFIX) and not lowered.startswith(".ssh/") and "/.ssh/" not in lowered:
            return False
        return _NAME_REGEX.match(name) is not None or _PATH_REGEX.match(lowered) is not None
