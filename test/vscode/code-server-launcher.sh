#!/bin/sh
# What runTests starts in place of VS Code's executable: the bundled launcher (out/test/launcher.js),
# which runs code-server and headless Chromium. A shell file because runTests spawns a path.
exec node "$(dirname "$0")/../../out/test/launcher.js" "$@"
