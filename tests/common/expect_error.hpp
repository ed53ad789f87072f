// Checks of fastmv's typed errors, shared by the test programs.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>

#include "fastmv/error.hpp"

namespace fastmv_test {

// Runs `call`, which must throw fastmv::InvalidArgument from `function` naming
// `argument` with `value`, both of which the message must contain.
template <typename Call>
void expect_invalid_argument(Call&& call, const std::string& function, const std::string& argument,
                             const std::string& value) {
  SCOPED_TRACE("expecting InvalidArgument for " + argument + " = " + value);
  try {
    call();
    ADD_FAILURE() << "no exception thrown";
  } catch (const fastmv::InvalidArgument& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.function(), function) << message;
    EXPECT_EQ(error.argument(), argument) << message;
    EXPECT_EQ(error.value(), value) << message;
    EXPECT_NE(message.find(argument), std::string::npos) << message;
    EXPECT_NE(message.find(value), std::string::npos) << message;
  } catch (const std::exception& error) {
    ADD_FAILURE() << "wrong exception type: " << error.what();
  }
}

}  // namespace fastmv_test
