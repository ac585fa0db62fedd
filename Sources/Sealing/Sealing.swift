// Module Sealing: see Package.swift for what it holds.
