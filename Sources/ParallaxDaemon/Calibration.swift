import ParallaxConfig
import ParallaxIIO
import ParallaxMotion

/// The calibration file (docs/configuration.md "Calibration file"): INI with at least `[Gyroscope] Bias=bx, by, bz`
/// (rad/s, device frame), subtracted from every gyroscope sample.
///
/// Only the bias is applied: the accelerometer's mean and scale error, also in the file, are
/// measurements for reference (fusion uses the direction of gravity, which a scale error does
/// not change).
struct Calibration: Equatable {
    var gyroBias: Vector3

    /// The sample with the bias removed from its gyroscope reading.
    func corrected(_ sample: Sample) -> Sample {
        guard let gyro = sample.gyro else { return sample }
        var sample = sample
        sample.gyro = gyro - gyroBias
        return sample
    }

    /// nil when the file does not exist (not calibrated); an issue when it exists but is wrong.
    static func load(path: String) -> Result<Calibration?, ConfigIssue> {
        let text: String
        switch ConfigLoader.readFile(path) {
        case .success(let t): text = t
        case .failure(.noSuchFileOrDirectory): return .success(nil)
        case .failure(let e): return .failure(ConfigIssue(file: path, line: 0, message: "cannot read: \(e)"))
        }
        var bias: String?
        let rc = IniText.parse(text) { section, key, value, _ in
            if section == "Gyroscope" && key == "Bias" { bias = value }
            return true
        }
        if rc != 0 { return .failure(ConfigIssue(file: path, line: rc, message: "syntax error")) }
        guard let text = bias else {
            return .failure(ConfigIssue(file: path, line: 0, message: "no [Gyroscope] Bias= entry"))
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { DecimalNumber.parseDouble($0) }
        guard parts.count == 3, let x = parts[0], let y = parts[1], let z = parts[2],
              abs(x) < 1, abs(y) < 1, abs(z) < 1 else {
            return .failure(ConfigIssue(file: path, line: 0, message: "[Gyroscope] Bias=\(text): expected three numbers in rad/s, each under 1"))
        }
        return .success(Calibration(gyroBias: Vector3(x, y, z)))
    }
}
