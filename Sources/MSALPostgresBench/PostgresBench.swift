/// The benchmark entry point.
@main
struct PostgresBench {
    static func main() {}
}
