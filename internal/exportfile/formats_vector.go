package exportfile

// vectorFormats and tableFormats are the formats of layers with geometry
// and of tables (filled in by the vector writer's work).
var (
	vectorFormats []Format
	tableFormats  []Format
)
