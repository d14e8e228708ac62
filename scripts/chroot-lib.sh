# Sourced by scripts/deb-chroot-check and scripts/fresh-check: a fresh
# Debian 12 (bookworm) root made by debootstrap, the way a new machine is.
#
#   chroot_make CACHE   sets CHROOT_ROOT: a new copy of the pristine minbase
#                       tree kept in CACHE (debootstrapped on first use),
#                       with /proc, /sys (read-only), /dev and /dev/shm
#                       mounted; chroot_cleanup (an EXIT trap) undoes it.
#   chroot_bind_ro SRC DEST   SRC mounted read-only at CHROOT_ROOT/DEST.
#
# Needs root, debootstrap and the Debian mirror (MIRROR, default
# http://deb.debian.org/debian); exits 77, saying why, when they are not
# there.
CHROOT_ROOT=
CHROOT_MOUNTS=()

chroot_make() {
    local cache=$1 mirror=${MIRROR:-http://deb.debian.org/debian}
    if [ "$(id -u)" != 0 ] || ! command -v debootstrap >/dev/null; then
        echo "$(basename "$0"): needs root and debootstrap (apt-get install debootstrap): skipped"
        exit 77
    fi
    if [ ! -x "$cache/bin/sh" ]; then
        echo "== debootstrap bookworm (minbase) into $cache"
        if ! debootstrap --variant=minbase bookworm "$cache" "$mirror" >"$cache.log" 2>&1; then
            tail -5 "$cache.log"
            echo "$(basename "$0"): debootstrap failed (no mirror?): skipped"
            rm -rf "$cache"
            exit 77
        fi
    fi
    CHROOT_ROOT=$(mktemp -d /var/tmp/vprof-chroot.XXXXXX)
    trap chroot_cleanup EXIT
    cp -a "$cache/." "$CHROOT_ROOT/"
    cp /etc/resolv.conf "$CHROOT_ROOT/etc/resolv.conf" 2>/dev/null || true
    chroot_mount -t proc proc "$CHROOT_ROOT/proc"
    chroot_mount --bind /dev "$CHROOT_ROOT/dev"
    chroot_mount -t tmpfs tmpfs "$CHROOT_ROOT/dev/shm"   # Open MPI's shared memory
    chroot_mount -t devpts devpts "$CHROOT_ROOT/dev/pts" 2>/dev/null || true
    chroot_bind_ro /sys /sys
}

chroot_mount() {  # mount ARGS... TARGET
    mount "$@" && CHROOT_MOUNTS+=("${!#}")
}

chroot_bind_ro() {
    mkdir -p "$CHROOT_ROOT$2"
    chroot_mount --bind "$1" "$CHROOT_ROOT$2"
    mount -o remount,bind,ro "$CHROOT_ROOT$2"
}

chroot_cleanup() {
    local i
    for ((i = ${#CHROOT_MOUNTS[@]} - 1; i >= 0; i--)); do
        umount -l "${CHROOT_MOUNTS[$i]}" 2>/dev/null || true
    done
    # Only after every mount is gone: rm must never reach /dev or ../shared.
    if [ -n "$CHROOT_ROOT" ] && ! grep -q " $CHROOT_ROOT/" /proc/mounts; then
        rm -rf "$CHROOT_ROOT"
    fi
}
