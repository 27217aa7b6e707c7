// The identity platform emulator.
