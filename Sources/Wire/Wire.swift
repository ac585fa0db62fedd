// Module Wire: see Package.swift for what it holds.
