#!/usr/bin/env bash
# Validate every bundled Leaf example task in this folder.
#
# For each <id>/ with a task.json it checks, in fresh temp dirs:
#   - task.json is well formed and its id matches the folder name;
#   - hidden/ files do not exist in repo/, solution/ files do (overlay only),
#     and the reference fix is a small edit (1-2 unified-diff hunks, one file);
#   - text files have no tabs, CRs or NUL bytes and end with a newline;
#   - repo/ alone                   -> tests.command passes (visible tests);
#   - repo/ + hidden/               -> tests.command fails;
#   - repo/ + solution/ + hidden/   -> tests.command passes (run twice);
#   - each run takes < 5 s and creates no files in the repo copy.
# Commands run under the harness environment:
#   PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp PYTHONDONTWRITEBYTECODE=1
#
# Usage: check-tasks.sh [task-id ...]   (default: all tasks)
# Prints "<id> ok" or "<id> FAIL: why" per task; exits 1 if any task fails.
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MAX_SECONDS=5
WORK="$(mktemp -d "${TMPDIR:-/tmp}/leaf-task-check.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# Reads task.json and prints "<id>\n<command>" (or fails with a message).
read_task_json() {
  node -e '
    const fs = require("node:fs");
    const t = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const bad = (m) => { console.error(m); process.exit(1); };
    if (typeof t.id !== "string" || !/^(js|py)-[a-z0-9]+(-[a-z0-9]+)*$/.test(t.id)) bad("bad id");
    if (typeof t.statement !== "string" || t.statement.trim() === "") bad("missing statement");
    if (!t.tests || typeof t.tests.command !== "string" || !t.tests.command.trim()) bad("missing tests.command");
    if (t.tests.command.includes("\n")) bad("tests.command has a newline");
    if (t.limits !== undefined) {
      const mt = t.limits && t.limits.maxTurns;
      if (!Number.isInteger(mt) || mt < 1) bad("limits.maxTurns must be a positive integer");
    }
    process.stdout.write(t.id + "\n" + t.tests.command);
  ' "$1"
}

# list_files DIR -> sorted relative file paths
list_files() { (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); }

# run_cmd DIR CMD -> sets RUN_RC, RUN_SECS, RUN_OUT, RUN_NEWFILES
run_cmd() {
  local dir="$1" cmd="$2" before after start end
  before="$(list_files "$dir")"
  start=$(date +%s%N)
  RUN_OUT="$(cd "$dir" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp PYTHONDONTWRITEBYTECODE=1 \
    timeout 30 bash -c "$cmd" </dev/null 2>&1)"
  RUN_RC=$?
  end=$(date +%s%N)
  RUN_SECS=$(( (end - start) / 1000000000 ))
  RUN_MS=$(( (end - start) / 1000000 ))
  after="$(list_files "$dir")"
  RUN_NEWFILES="$(comm -13 <(echo "$before") <(echo "$after") | head -3 | tr '\n' ' ')"
}

# stage NAME LAYER... -> copies the layers (subfolders of the task) in order into $WORK/<id>-NAME
stage() {
  local name="$1"; shift
  local dest="$WORK/$ID-$name"
  rm -rf "$dest"; mkdir -p "$dest"
  local layer
  for layer in "$@"; do cp -R "$TASK/$layer/." "$dest/"; done
  echo "$dest"
}

check_task() {
  TASK="$1"
  local folder; folder="$(basename "$TASK")"
  ID="$folder"
  local meta err
  if ! meta="$(read_task_json "$TASK/task.json" 2>&1)"; then
    echo "task.json: $meta"; return 1
  fi
  ID="$(printf '%s' "$meta" | head -n1)"
  local cmd; cmd="$(printf '%s' "$meta" | tail -n +2)"
  [ "$ID" = "$folder" ] || { echo "id '$ID' does not match folder '$folder'"; return 1; }

  local sub
  for sub in repo solution hidden; do
    [ -d "$TASK/$sub" ] && [ -n "$(list_files "$TASK/$sub")" ] || { echo "$sub/ missing or empty"; return 1; }
  done

  local f
  while IFS= read -r f; do
    [ -e "$TASK/repo/$f" ] && { echo "hidden file $f already exists in repo/"; return 1; }
  done < <(list_files "$TASK/hidden")

  local changed=0 hunks
  while IFS= read -r f; do
    [ -f "$TASK/repo/$f" ] || { echo "solution file $f is not in repo/"; return 1; }
    if ! cmp -s "$TASK/repo/$f" "$TASK/solution/$f"; then
      changed=$((changed + 1))
      hunks=$(diff -U3 "$TASK/repo/$f" "$TASK/solution/$f" | grep -c '^@@')
      [ "$hunks" -le 2 ] || { echo "solution $f has $hunks hunks (max 2)"; return 1; }
    fi
  done < <(list_files "$TASK/solution")
  [ "$changed" -eq 1 ] || { echo "solution changes $changed files (expected 1)"; return 1; }

  for sub in repo solution hidden; do
    while IFS= read -r f; do
      local p="$TASK/$sub/$f"
      [ -s "$p" ] || continue
      if grep -qP '\t' "$p"; then echo "$sub/$f contains a tab"; return 1; fi
      if grep -q $'\r' "$p"; then echo "$sub/$f contains CR"; return 1; fi
      if [ "$(tr -d '\000' < "$p" | wc -c)" -ne "$(wc -c < "$p")" ]; then echo "$sub/$f is binary"; return 1; fi
      if [ -n "$(tail -c1 "$p")" ]; then echo "$sub/$f does not end with a newline"; return 1; fi
    done < <(list_files "$TASK/$sub")
  done

  local dir
  # 1. visible tests pass on the untouched repo
  dir="$(stage visible repo)"
  run_cmd "$dir" "$cmd"
  [ "$RUN_RC" -eq 0 ] || { echo "visible tests fail on repo/ (rc=$RUN_RC): $(echo "$RUN_OUT" | tail -n 5 | tr '\n' ' ')"; return 1; }
  [ "$RUN_SECS" -lt "$MAX_SECONDS" ] || { echo "visible run took ${RUN_MS}ms"; return 1; }
  [ -z "$RUN_NEWFILES" ] || { echo "visible run created files: $RUN_NEWFILES"; return 1; }

  # 2. hidden tests fail on the buggy repo
  dir="$(stage buggy repo hidden)"
  run_cmd "$dir" "$cmd"
  [ "$RUN_RC" -ne 0 ] || { echo "repo/ + hidden/ passes (hidden tests do not catch the bug)"; return 1; }
  [ "$RUN_RC" -ne 124 ] || { echo "repo/ + hidden/ timed out"; return 1; }
  [ "$RUN_SECS" -lt "$MAX_SECONDS" ] || { echo "buggy run took ${RUN_MS}ms"; return 1; }
  [ -z "$RUN_NEWFILES" ] || { echo "buggy run created files: $RUN_NEWFILES"; return 1; }

  # 3. reference solution passes everything (twice, in fresh copies, for determinism)
  local round
  for round in 1 2; do
    dir="$(stage fixed$round repo solution hidden)"
    run_cmd "$dir" "$cmd"
    [ "$RUN_RC" -eq 0 ] || { echo "repo/ + solution/ + hidden/ fails (rc=$RUN_RC, round $round): $(echo "$RUN_OUT" | tail -n 5 | tr '\n' ' ')"; return 1; }
    [ "$RUN_SECS" -lt "$MAX_SECONDS" ] || { echo "fixed run took ${RUN_MS}ms"; return 1; }
    [ -z "$RUN_NEWFILES" ] || { echo "fixed run created files: $RUN_NEWFILES"; return 1; }
  done
  return 0
}

status=0
count=0
if [ "$#" -gt 0 ]; then
  tasks=(); for id in "$@"; do tasks+=("$HERE/$id"); done
else
  tasks=("$HERE"/*/)
fi
for task in "${tasks[@]}"; do
  task="${task%/}"
  [ -f "$task/task.json" ] || { [ "$#" -gt 0 ] && { echo "$(basename "$task") FAIL: no task.json"; status=1; }; continue; }
  count=$((count + 1))
  if why="$(check_task "$task")"; then
    echo "$(basename "$task") ok"
  else
    echo "$(basename "$task") FAIL: $why"
    status=1
  fi
done
[ "$count" -gt 0 ] || { echo "no tasks found in $HERE"; exit 1; }
exit "$status"
