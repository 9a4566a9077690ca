package server

// CompatStripeMock is --compat's one mode: answer as stripe-mock does.
const CompatStripeMock = "stripe-mock"
