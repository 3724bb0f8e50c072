# mount_small SIZE DIR: a small tmpfs at DIR (created); exits 77 (skip) when mounting is not
# permitted (not root, or a container without CAP_SYS_ADMIN).  Undo with lib/cleanup.sh.
mount_small() {
    mkdir -p "$2" || exit 1
    if ! mount -t tmpfs -o "size=$1,mode=0755" tmpfs "$2" 2>/dev/null; then
        echo "cannot mount a tmpfs here (needs root): not covered"
        exit 77
    fi
}
