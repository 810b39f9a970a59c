// parallaxd: IIO accelerometer and gyroscope → viewer offset → subscribers on a Unix socket.
// The command line is parsed by DaemonCommandLine (no swift-argument-parser here: see why there).
import Glibc
import ParallaxDaemon

exit(DaemonCommandLine.run(Array(CommandLine.arguments.dropFirst())))
