#!/bin/sh
# Debian's Python with site-packages switched off: an interpreter that has no ipykernel.
exec /usr/bin/python3 -S "$@"
