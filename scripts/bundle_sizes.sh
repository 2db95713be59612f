#!/usr/bin/env bash
# Build the bundle once per exclusion stage and print each stage's size, so the saving of each
# exclusion in build.spec is measured, not guessed. Takes ~4 min per stage on 2 cores.
#   scripts/bundle_sizes.sh [out-dir]
# build.spec's NEVER_BUNDLED (triton, networkx) apply to every stage, "none" included: being
# installed in the build's venv is no reason to ship them. The last stage's biggest parts are
# listed, so the next exclusion is chosen from measurements. PYINSTALLER overrides the command.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/iris-gui-bundle-sizes}
mkdir -p "$out"
printf '%-32s %8s %10s %8s\n' "exclusions" "MB" "tar.gz MB" "build s"
for stage in ${STAGES:-none modules modules,tests modules,tests,torchdev modules,tests,torchdev,qt all}; do
    start=$(date +%s)
    IRIS_GUI_BUNDLE_TRIM=$stage ${PYINSTALLER:-.venv/bin/pyinstaller} --noconfirm --clean --log-level WARN \
        --distpath "$out/dist-$stage" --workpath "$out/build-$stage" build.spec >"$out/$stage.log" 2>&1
    seconds=$(( $(date +%s) - start ))
    size=$(du -sm "$out/dist-$stage/iris-gui" | cut -f1)
    gz=$(tar -C "$out/dist-$stage" -czf - iris-gui | wc -c)
    printf '%-32s %8s %10s %8s\n' "$stage" "$size" "$(( gz / 1048576 ))" "$seconds"
    [ "$stage" = all ] || rm -rf "$out/build-$stage"
done
last="$out/dist-$stage/iris-gui/_internal"  # $stage: the loop's last
if [ -d "$last" ]; then
    echo "largest parts of $last (MB):"
    du -sm "$last"/* | sort -rn | head -n 12
fi
