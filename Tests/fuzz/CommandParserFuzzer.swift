// libFuzzer entry point for the protocol-v1 command parser: every byte string a client could send
// goes through the same path as in the daemon (line splitting, JSON, command decoding, and the
// reply encoding). Any crash, hang or sanitizer report is a bug. Built and run by scripts/fuzz.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var splitter = LineSplitter(maxLineLength: ProtocolConstants.maxLineLength)
    for event in splitter.feed(bytes) {
        guard case .line(let line) = event else { continue }
        switch ClientRequest.decode(line: line) {
        case .success(let request):
            // What the daemon would send back must always be one well-formed line.
            let reply = ServerMessage.ok(id: request.id).encode()
            precondition(reply.last == UInt8(ascii: "\n") && reply.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") })
            precondition(ClientRequest.decode(line: request.encode().dropLast()) == .success(request))
        case .failure(let error):
            let reply = ServerMessage.error(error).encode()
            precondition(reply.last == UInt8(ascii: "\n") && reply.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") })
        }
    }
    return 0
}
