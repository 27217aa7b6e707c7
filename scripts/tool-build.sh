# Sourced by scripts/install.sh and scripts/package-deb.sh: builds the tool for $configuration and sets
#   bin        the folder with msal and msal-emulator
#   generator  swift-argument-parser's man page generator
# release: the build for installing (scripts/build-release.sh: the runtime linked in).
# debug: the debug build as the tests use it (linking the runtime in would rebuild every module). With MSAL_BUILT=1
#   (the test command, right after `swift build --build-tests`) the programs are taken as that build made them:
#   building them again as single products would compile and link them again under other settings, and the next test
#   build would compile them back.
# The generator is built alone from the argument parser's checkout in a folder of its own (seconds once built), not
# through its package plugin, which would build every product, nor in this package's build, whose modules it would
# rebuild under other settings; in the configuration asked for (a debug build of it compiles in half the time).
if [ "$configuration" = release ]; then
    scripts/build-release.sh >&2
elif [ "${MSAL_BUILT:-0}" != 1 ]; then
    swift build --traits Tools -c "$configuration" --product msal >&2
    swift build --traits Tools -c "$configuration" --product msal-emulator >&2
fi
bin="$(swift build --traits Tools -c "$configuration" --show-bin-path)"
swift build --package-path .build/checkouts/swift-argument-parser --scratch-path .build/generate-manual \
    -c "$configuration" --product generate-manual >&2
generator="$(swift build --package-path .build/checkouts/swift-argument-parser --scratch-path .build/generate-manual \
    -c "$configuration" --show-bin-path)/generate-manual"
