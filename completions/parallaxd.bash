# bash completion for parallaxd (hand-written: parallaxd parses its own short command line;
# test_install.py checks that every option of `parallaxd --help` is offered here).
_parallaxd() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    case "$prev" in
        --config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --socket) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --source) COMPREPLY=($(compgen -W "auto iio:local: iio:ip: replay:" -- "$cur")); return ;;
        --log-level) COMPREPLY=($(compgen -W "error warning notice info debug" -- "$cur")); return ;;
        --seconds) return ;;
    esac
    COMPREPLY=($(compgen -W "--config --socket --source --log-level --check-config --calibrate --seconds --version --help" -- "$cur"))
}
complete -F _parallaxd parallaxd
