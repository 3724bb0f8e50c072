# deep N OPEN VALUE CLOSE: print OPEN N times, VALUE, CLOSE N times (N a multiple of 100)
deep() {
    _s=""; _i=0
    while [ $_i -lt 100 ]; do _s="$_s$2"; _i=$((_i + 1)); done
    _i=0; while [ $_i -lt $(($1 / 100)) ]; do printf '%s' "$_s"; _i=$((_i + 1)); done
    printf '%s' "$3"
    _s=""; _i=0
    while [ $_i -lt 100 ]; do _s="$_s$4"; _i=$((_i + 1)); done
    _i=0; while [ $_i -lt $(($1 / 100)) ]; do printf '%s' "$_s"; _i=$((_i + 1)); done
}
