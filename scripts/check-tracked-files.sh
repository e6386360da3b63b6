#!/usr/bin/env bash
# Fails when git tracks a build output: an executable binary (ELF, Mach-O,
# PE, or any file with the executable bit that is not a #! script) or a file
# larger than GEOPUB_MAX_TRACKED_MB (default 5). `make check` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

max_mb=${GEOPUB_MAX_TRACKED_MB:-5}
max_bytes=$((max_mb * 1024 * 1024))
bad=()
while IFS= read -r -d '' entry; do
	mode=${entry%% *}
	path=${entry#*$'\t'}
	[[ -f "$path" ]] || continue
	size=$(stat -c %s -- "$path")
	if ((size > max_bytes)); then
		bad+=("$path: $((size / 1024 / 1024)) MB, over the ${max_mb} MB limit")
		continue
	fi
	magic=$(head -c 4 -- "$path" | od -An -tx1 | tr -d ' \n')
	case "$magic" in
	7f454c46) bad+=("$path: an ELF executable") ;;
	cffaedfe | feedfacf | cefaedfe | feedface | cafebabe) bad+=("$path: a Mach-O executable") ;;
	4d5a*) bad+=("$path: a Windows (PE) executable") ;;
	*)
		if [[ "$mode" == 100755 && "$magic" != 2321* ]]; then
			bad+=("$path: executable bit set on a file that is not a #! script")
		fi
		;;
	esac
done < <(git ls-files -s -z)

if ((${#bad[@]} > 0)); then
	echo "check-tracked-files: build outputs or oversized files are tracked:" >&2
	printf '  %s\n' "${bad[@]}" >&2
	echo "remove them with 'git rm --cached' and ignore them in .gitignore" >&2
	exit 1
fi
echo "check-tracked-files: ok ($(git ls-files | wc -l) files, none executable or over ${max_mb} MB)"
