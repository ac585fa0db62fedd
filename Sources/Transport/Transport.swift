// Module Transport: see Package.swift for what it holds.
