import Testing
@testable import ParallaxIIO

struct UeventTests {
    private func fields(_ text: String) -> [UInt8] {
        Array(text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\0").utf8)
    }

    @Test func aKernelIIOAdditionNamesItsDevice() {
        let event = Uevent(properties: fields("ACTION=add|DEVPATH=/devices/pci0000:00/0000:00:04.0/0003:1D6B:0001.0001/HID-SENSOR-200073.0.auto/iio:device0|SUBSYSTEM=iio|DEVNAME=iio:device0|DEVTYPE=iio_device|SEQNUM=2211|"))
        #expect(event?.action == "add")
        #expect(event?.deviceID == "iio:device0")
    }

    @Test func otherSubsystemsAndTriggersAreNotIIODevices() {
        #expect(Uevent(properties: fields("ACTION=add|DEVPATH=/devices/virtual/input/input3|SUBSYSTEM=input"))?.deviceID == nil)
        #expect(Uevent(properties: fields("ACTION=add|DEVPATH=/devices/x/trigger0|SUBSYSTEM=iio"))?.deviceID == nil)
    }

    @Test func fieldsWithoutActionOrDevpathAreRefused() {
        #expect(Uevent(properties: fields("DEVPATH=/devices/x/iio:device0|SUBSYSTEM=iio")) == nil)
        #expect(Uevent(properties: fields("ACTION=add|SUBSYSTEM=iio")) == nil)
        #expect(Uevent(properties: fields("garbage|=|ACTION|")) == nil)
        #expect(Uevent(properties: [UInt8]()) == nil)
    }
}
