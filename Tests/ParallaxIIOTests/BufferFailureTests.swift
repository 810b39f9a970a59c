import Glibc
import Testing
@testable import ParallaxIIO

/// The reasons logged when buffered capture cannot start ("…: polling instead", docs/sensors.md).
struct BufferFailureTests {
    @Test func busyBufferNamesAnotherProcess() {
        let text = IIOBufferedDriver.explainCreateFailure(errno: EBUSY, deviceID: "iio:device2", deviceName: "bmi160")
        #expect(text.contains("buffer busy"))
        #expect(text.contains("another process"))
    }

    @Test(arguments: [EACCES, EPERM])
    func permissionProblemsSaySo(code: Int32) {
        let text = IIOBufferedDriver.explainCreateFailure(errno: code, deviceID: "iio:device2", deviceName: "bmi160")
        #expect(text.contains("no permission"))
        #expect(text.contains("iio:device2"))
    }

    @Test(arguments: [EINVAL, ENOENT, EIO])
    func otherErrorsNameTheDeviceAndTheError(code: Int32) {
        let text = IIOBufferedDriver.explainCreateFailure(errno: code, deviceID: "iio:device2", deviceName: "bmi160")
        #expect(text.contains("iio:device2 (bmi160)"))
        #expect(text.contains(IIOContext.describe(errno: code)))
        #expect(!text.contains("busy"))
    }
}
