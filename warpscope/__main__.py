from warpscope.cli import main

main()
