# A judge that always says tie, so the run has a decision procedure to calibrate.
cat >/dev/null
printf '{"reasoning":"r","criteria":{"helpfulness":{"A":3,"B":3},"organization":{"A":3,"B":3},"formatting":{"A":3,"B":3},"usability":{"A":3,"B":3}},"expectations":{},"winner":"TIE"}\n'
