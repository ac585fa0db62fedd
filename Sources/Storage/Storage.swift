// Module Storage: see Package.swift for what it holds.
