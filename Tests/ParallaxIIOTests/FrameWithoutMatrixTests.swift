// A device with no mount matrix anywhere (MountMatrixLookup.frameWithoutMatrix): a HID sensor
// hub's axes in the direction-of-gravity convention, any other driver's as specific force, so a
// chip lying face up (raw +g on z) reads gravity along −z, where a HID hub reports it as raw −g.

import Testing
import ParallaxMotion
@testable import ParallaxIIO

@Suite struct FrameWithoutMatrixTests {
    @Test(arguments: ["accel_3d", "gyro_3d", "gravity"])
    func aHidHubsAxesAreTheDirectionOfGravity(name: String) {
        #expect(MountMatrixLookup.frameWithoutMatrix(name) == .identity)
    }

    @Test(arguments: ["bmi160", "lsm6dso", "mpu6050", "mxc4005", "cros-ec-accel", ""])
    func anyOtherDriverReportsSpecificForce(name: String) {
        let frame = MountMatrixLookup.frameWithoutMatrix(name)
        #expect(frame.source == .chip && frame.isConsistent())
        // Face up on a table: the chip measures +g on z; gravity points into the table (−z).
        let faceUp = frame.accel.apply(Vector3(0, 0, 9.81))
        #expect(faceUp.z < -9.8 && abs(faceUp.x) < 1e-12 && abs(faceUp.y) < 1e-12)
        // A right-handed rate passes unchanged (det(A)·A with A = −I).
        #expect(frame.gyro == .identity)
    }
}
