cat >/dev/null
echo '{"reasoning": "ok", "criteria": {}, "expectations": {"polite": {"A": true, "B": true}}, "winner": "TIE"}'
