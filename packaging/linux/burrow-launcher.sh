#!/bin/sh
# /usr/bin/burrow: starts the bundle installed under /opt/burrow (a script rather than a symlink,
# so the bundle finds its _internal folder whatever the caller's working directory).
exec /opt/burrow/burrow "$@"
