// Module Signing: see Package.swift for what it holds.
