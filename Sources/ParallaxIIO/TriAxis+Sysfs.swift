import ParallaxMotion

extension TriAxis {
    /// One reading of three sysfs values, in the device frame (SI units).
    enum Reading {
        case value(Vector3)
        /// A value that is no number, or no finite vector once scaled.
        case garbage(String)
        case failed(IIOAttributeError)
    }

    /// Reads the three `in_*_raw` (or `_input`) attributes now: blocks for as long as the
    /// driver takes (on a HID hub, three GET_REPORT round trips to the hub's firmware).
    func readSysfs() -> Reading {
        var raw = [0.0, 0.0, 0.0]
        for i in 0..<3 {
            switch channels[i].read(attribute) {
            case .failure(let error): return .failed(error)
            case .success(let text):
                guard let value = DecimalNumber.parseDouble(text) else { return .garbage(text) }
                raw[i] = value
            }
        }
        let device = deviceFrame(raw[0], raw[1], raw[2])
        return device.isFinite ? .value(device) : .garbage("non-finite after scaling")
    }
}
