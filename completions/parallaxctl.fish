function __parallaxctl_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __parallaxctl_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __parallaxctl_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __parallaxctl_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __parallaxctl_parse_tokens -S
    set -l unparsed_tokens (__parallaxctl_tokens -pc)
    switch $unparsed_tokens[1]
    case 'parallaxctl'
        __parallaxctl_parse_subcommand 0 'socket=' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'monitor'
            __parallaxctl_parse_subcommand 0 'socket=' 'rate=' 'rotation=' 'seconds=' 'json' 'heading' 'version' 'h/help'
        case 'status'
            __parallaxctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
        case 'recenter'
            __parallaxctl_parse_subcommand 0 'socket=' 'version' 'h/help'
        case 'reduce-motion'
            __parallaxctl_parse_subcommand 1 'socket=' 'version' 'h/help'
        case 'simulate'
            __parallaxctl_parse_subcommand 1 'config=' 'rotation=' 'version' 'h/help'
        case 'record'
            __parallaxctl_parse_subcommand 1 'seconds=' 'source=' 'rate=' 'version' 'h/help'
        case 'frame'
            __parallaxctl_parse_subcommand 0 'source=' 'timeout=' 'speed=' 'version' 'h/help'
        case 'help'
            __parallaxctl_parse_subcommand -r 1 'version'
        end
    end
end

function __parallaxctl_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __parallaxctl_parse_subcommand -S -a positional_count
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

function __parallaxctl_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __parallaxctl_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__parallaxctl_tokens -p)
    if test -z "$(__parallaxctl_tokens -t)"
        set -l index (count (__parallaxctl_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'parallaxctl' -f
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl" socket' -l 'socket' -d 'parallaxd\'s socket (default: $PARALLAXD_SOCKET, else /run/parallaxd/parallaxd.sock).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl" version' -l 'version' -d 'Show the version.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_positional "parallaxctl" -eq 1' -fa 'monitor' -d 'Show the live viewer offset (Ctrl-C to stop).'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_positional "parallaxctl" -eq 1' -fa 'status' -d 'Show the daemon\'s sensors, mode, rates and clients.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_positional "parallaxctl" -eq 1' -fa 'recenter' -d 'Make the device\'s current pose the resting pose.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_positional "parallaxctl" -eq 1' -fa 'reduce-motion' -d 'Turn reduce motion on (offsets stay at 0, sensors close) or off.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_positional "parallaxctl" -eq 1' -fa 'simulate' -d 'Run the motion engine over a trace file and print {"t","x","y","vx","vy","yaw","vyaw","q"} per sample.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_positional "parallaxctl" -eq 1' -fa 'record' -d 'Record live sensor samples (device frame, SI units) into a trace file.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_positional "parallaxctl" -eq 1' -fa 'frame' -d 'Find the device\'s mount matrix: hold it upright, on its right edge, then flat.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_positional "parallaxctl" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl monitor" socket' -l 'socket' -d 'parallaxd\'s socket (default: $PARALLAXD_SOCKET, else /run/parallaxd/parallaxd.sock).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl monitor" rate' -l 'rate' -d 'Frames per second to ask for (Hz; the daemon caps it).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl monitor" rotation' -l 'rotation' -d 'Display rotation, degrees clockwise: 0, 90, 180 or 270.' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl monitor" seconds' -l 'seconds' -d 'Stop after this many seconds.' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl monitor" json' -l 'json' -d 'Print the daemon\'s JSON lines as they arrive.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl monitor" heading' -l 'heading' -d 'Ask for the heading too and show yaw (degrees about the world\'s vertical) and its rate.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl monitor" version' -l 'version' -d 'Show the version.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl monitor" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl status" socket' -l 'socket' -d 'parallaxd\'s socket (default: $PARALLAXD_SOCKET, else /run/parallaxd/parallaxd.sock).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl status" json' -l 'json' -d 'Print the daemon\'s status line as JSON.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl status" version' -l 'version' -d 'Show the version.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl recenter" socket' -l 'socket' -d 'parallaxd\'s socket (default: $PARALLAXD_SOCKET, else /run/parallaxd/parallaxd.sock).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl recenter" version' -l 'version' -d 'Show the version.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl recenter" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl reduce-motion" socket' -l 'socket' -d 'parallaxd\'s socket (default: $PARALLAXD_SOCKET, else /run/parallaxd/parallaxd.sock).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_positional "parallaxctl reduce-motion" -eq 1' -fka 'on off'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl reduce-motion" version' -l 'version' -d 'Show the version.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl reduce-motion" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl simulate" config' -l 'config' -d 'Take [Motion] settings from this config file (and its .d drop-ins).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl simulate" rotation' -l 'rotation' -d 'Clockwise rotation of the output (0, 90, 180 or 270), as a subscription\'s "rotation".' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl simulate" version' -l 'version' -d 'Show the version.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl simulate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl record" seconds' -l 'seconds' -d 'How long to record (seconds).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl record" source' -l 'source' -d 'Sensor source: auto, iio:<libiio URI> or replay:<trace>.' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl record" rate' -l 'rate' -d 'Sampling rate (Hz).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl record" version' -l 'version' -d 'Show the version.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl record" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl frame" source' -l 'source' -d 'Sensor source: auto, iio:<libiio URI> or replay:<trace> (raw chip axes).' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl frame" timeout' -l 'timeout' -d 'Give up after this many seconds.' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl frame" speed' -l 'speed' -d 'Replay speed for a replay: source.' -rfka ''
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl frame" version' -l 'version' -d 'Show the version.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl frame" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'parallaxctl' -n '__parallaxctl_should_offer_completions_for_flags_or_options "parallaxctl help" version' -l 'version' -d 'Show the version.'
