// Wire's messages are built of RelayWire's parts (fixed bytes, the byte reader, limits, WireError):
// re-exported, so a module that reads messages needs one import, and the relay, which imports
// RelayWire alone, links none of the application schemas.
@_exported import RelayWire
