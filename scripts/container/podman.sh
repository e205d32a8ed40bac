#!/usr/bin/env bash
# Podman as it runs on this project's machines (docs/operations.md, "The container image"): runc
# (crun refuses the hybrid cgroups of these sandboxes), the vfs storage driver, cgroupfs, and no
# default ulimits (they cannot be raised here). Sourced by the other scripts; `pm ARGS` runs podman.
# The settings live in a containers.conf of our own (CONTAINERS_CONF), not in /etc.
container_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$container_dir/containers.conf}"
pm() { podman --runtime runc --storage-driver vfs "$@"; }
