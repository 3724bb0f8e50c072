# cleanup: unmount $TMP/fs when mounted (and stop a background lock holder, if any)
[ -f "$TMP/holder.pid" ] && kill $(cat "$TMP/holder.pid") 2>/dev/null
if grep -q " $TMP/fs " /proc/mounts 2>/dev/null; then
    umount "$TMP/fs" || umount -l "$TMP/fs"
fi
exit 0
