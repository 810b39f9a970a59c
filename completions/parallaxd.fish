function __parallaxd_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __parallaxd_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __parallaxd_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __parallaxd_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __parallaxd_parse_tokens -S
    set -l unparsed_tokens (__parallaxd_tokens -pc)
    switch $unparsed_tokens[1]
    case 'parallaxd'
        __parallaxd_parse_subcommand 0 'config=' 'socket=' 'source=' 'log-level=' 'check-config' 'calibrate' 'seconds=' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __parallaxd_parse_subcommand -r 1 'version'
        end
    end
end

function __parallaxd_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __parallaxd_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __parallaxd_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __parallaxd_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__parallaxd_tokens -p)
    if test -z "$(__parallaxd_tokens -t)"
        set -l index (count (__parallaxd_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'parallaxd' -f
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd" config' -l 'config' -d 'Config file (default /etc/parallaxd/parallaxd.conf, plus <file>.d/*.conf drop-ins).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'conf\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd" socket' -l 'socket' -d 'Listening socket path (default /run/parallaxd/parallaxd.sock).' -rF
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd" source' -l 'source' -d 'Sensor source: auto, iio:<libiio URI> (iio:local:, iio:ip:HOST) or replay:<trace file>.' -rfka 'auto iio:local: iio:ip: replay:'
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd" log-level' -l 'log-level' -d 'error, warning, notice, info or debug (default info; LogLevel= in the config).' -rfka 'error warning notice info debug'
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd" check-config' -l 'check-config' -d 'Check the configuration and exit: 0 when valid, 78 with file:line: messages when not.'
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd" calibrate' -l 'calibrate' -d 'Measure gyroscope bias and noise and the accelerometer at rest, with the device lying still, and write the calibration file.'
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd" seconds' -l 'seconds' -d 'With --calibrate: how long to measure (1 to 120 seconds, default 5).' -rfka ''
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd" version' -l 'version' -d 'Show the version.'
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_positional "parallaxd" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'parallaxd' -n '__parallaxd_should_offer_completions_for_flags_or_options "parallaxd help" version' -l 'version' -d 'Show the version.'
