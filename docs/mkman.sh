#!/bin/sh
# Make the man page of one subcommand from its --help text, so the two never differ.
# Usage: mkman.sh BIGCHUNK CMD > bigchunk-CMD.1
#
# The help text's shape: "usage:" lines, description paragraphs, option lines
# ("  -x, --long ARG   text", continuation lines indented further), and sections that
# start with "Word:" alone ("Options:", "Exit status: ...", "Examples:").
set -eu
bin=$1
cmd=$2
summary=$("$bin" help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
"$bin" "$cmd" --help | awk -v cmd="$cmd" -v summary="$summary" '
function esc(s) { gsub(/\\/, "\\e", s); gsub(/^\./, "\\\\\\&.", s); gsub(/^'"'"'/, "\\\\\\&'"'"'", s); return s }
BEGIN {
	printf ".TH BIGCHUNK-%s 1 \"\" \"bigchunk\" \"bigchunk manual\"\n", toupper(cmd)
	printf ".SH NAME\nbigchunk-%s \\- %s\n", cmd, summary
	sect = "synopsis"
}
/^usage: / { sub(/^usage: /, ""); print ".SH SYNOPSIS\n.nf"; print esc($0); insyn = 1; next }
insyn && /^ +/ { sub(/^ +/, "       "); print esc($0); next }
insyn { print ".fi"; insyn = 0; print ".SH DESCRIPTION"; sect = "desc" }
/^Options:$/ { print ".SH OPTIONS"; sect = "opts"; next }
/^Examples?:$/ { print ".SH EXAMPLES\n.nf"; sect = "ex"; next }
/^Exit status:/ { if (sect == "ex") print ".fi"; print ".SH EXIT STATUS"; sub(/^Exit status: */, ""); sect = "exit" }
/^$/ { if (sect == "ex") print ""; else print ".PP"; next }
sect == "ex" { sub(/^  /, ""); print esc($0); next }
/^  +-/ && sect != "ex" {
	line = $0; sub(/^ +/, "", line)
	n = match(line, /  +/)
	if (n) { opt = substr(line, 1, n - 1); txt = substr(line, n); sub(/^ +/, "", txt) }
	else { opt = line; txt = "" }
	print ".TP\n.B " esc(opt); if (txt != "") print esc(txt); next
}
/^ +/ { sub(/^ +/, ""); print esc($0); next }
{ print esc($0) }
END { if (sect == "ex") print ".fi"; print ".SH SEE ALSO\nbigchunk(1), db/README.md in the source" }
'
