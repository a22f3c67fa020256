# Turns `go test -bench ./inference` output into a table of tokens/s.
/^Benchmark/ {
  name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
  for (i = 2; i < NF; i++) {
    if ($(i+1) == "prefill-tok/s" || $(i+1) == "decode-tok/s") rate[name] = $i
    if ($(i+1) == "resample/tok") res[name] = $i
  }
}
END {
  printf "%-34s %-26s %12s %14s\n", "model", "benchmark", "tokens/s", "resamples/tok"
  n = split("Prefill Decode DecodeGrammar DecodeGrammarFullVocab", order, " ")
  for (i = 1; i <= n; i++) if (order[i] in rate)
    printf "%-34s %-26s %12.1f %14s\n", model, order[i], rate[order[i]], (order[i] in res ? res[order[i]] : "-")
}
