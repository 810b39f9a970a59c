# fish completion for parallaxd (hand-written: parallaxd parses its own short command line;
# test_install.py checks that every option of `parallaxd --help` is offered here).
complete -c parallaxd -f
complete -c parallaxd -l config -r -F -d 'Config file (default /etc/parallaxd/parallaxd.conf)'
complete -c parallaxd -l socket -r -F -d 'Listening socket path'
complete -c parallaxd -l source -x -a 'auto iio:local: iio:ip: replay:' -d 'Sensor source'
complete -c parallaxd -l log-level -x -a 'error warning notice info debug' -d 'Log level'
complete -c parallaxd -l check-config -d 'Check the configuration and exit'
complete -c parallaxd -l calibrate -d 'Measure sensor biases with the device still'
complete -c parallaxd -l seconds -x -d 'With --calibrate: how long to measure'
complete -c parallaxd -l version -d 'Show the version'
complete -c parallaxd -s h -l help -d 'Show help'
