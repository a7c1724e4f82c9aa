        .model  warp
main:
        .gateloc fetch @xl, 5, 7
        .gateloc receive r3, 5, 7
        .gateloc send @xr, 6
        halt
