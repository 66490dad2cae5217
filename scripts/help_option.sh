# Sourced first by the shell scripts in scripts/ (`. "$(dirname "$0")/help_option.sh" "$@"`): -h or
# --help as the first argument prints the script's header comment (what it does, its usage) and
# exits 0, before anything is installed, built or run.
case "${1:-}" in
  -h | --help)
    sed -n '2,/^[^#]/{/^#/{s/^# \{0,1\}//;p}}' "$0"
    exit 0 ;;
esac
