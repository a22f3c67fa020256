package synth

// corpus is the text the vocabulary's merges are learned from: words an
// agent that reads files and calls tools sees often.
const corpus = `The user asked the assistant to list the files in the current directory.
The assistant called the ls tool with the path argument and read the result.
{"name": "ls", "arguments": {"path": "."}}
{"name": "read_file", "arguments": {"path": "README.md", "offset": 1, "limit": 20}}
{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hello world"}}
{"name": "get_current_time", "arguments": {}}
{"tool_calls": [{"name": "grep_search", "arguments": {"pattern": "main", "file_filter": "**/*.go"}}]}
{"response": "The directory contains three files and one folder."}
{"success": true, "data": "FILE 1.2 KB main.go", "error_message": null, "error_type": "none"}
The function returns a string, a number, an integer, a boolean, an array or an object.
Find the area of a triangle with a base of 10 units and a height of 5 units.
Calculate the weather in the city of San Francisco, California, in celsius and fahrenheit.
What is the time in New York? Please tell me the date and the temperature today.
This is a test of the tokenizer: numbers 0 1 2 3 4 5 6 7 8 9 10 100 2024 and punctuation , . ; : ! ? ( ) [ ] { } " ' - _ / \ * = + < > | & % $ # @ ~
the the the and and and to to of of in in is is for for with with on on that that
`
